"""Each lesson's own figures, one module per page that has them, named after the page."""
