"""The "Your turn" panel and the learner's work that the browser keeps."""
