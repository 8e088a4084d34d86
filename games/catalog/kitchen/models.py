"""Catalogue models for the kitchen domain (land with its domain issue)."""
