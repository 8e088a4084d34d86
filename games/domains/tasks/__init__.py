"""The tasks domain (TimeArena): durative household, cooking and lab actions played on one clock.

``rules.RULES`` is the rule set (``tasks-v1``); ``definition`` holds the scenario format and
``compose`` for playing several tasks at once.
"""
