"""Models land with the annotations issue."""
