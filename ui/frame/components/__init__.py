"""Front-end components the app ships with its own files (no CDN): the browser's local store."""
