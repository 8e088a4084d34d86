"""A fifth game that exists only in this test folder: its rules, content loader and commands, and
the one descriptor (``descriptor.py``) that registers all of it (``test_fifth_domain.py``)."""
