"""Models land with the studies issue."""
