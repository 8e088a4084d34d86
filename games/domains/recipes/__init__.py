"""The recipes domain (Recipe2Plan rules): see rules.py and SPEC section 3."""
