"""Catalogue models for the tasks domain (land with its domain issue)."""
