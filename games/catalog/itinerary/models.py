"""Catalogue models for the itinerary domain (land with its domain issue)."""
