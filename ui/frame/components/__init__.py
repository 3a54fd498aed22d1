"""Front-end components the app ships with its own files (no CDN): the browser's local store,
the page's language and title on the document, and the polite live region."""
