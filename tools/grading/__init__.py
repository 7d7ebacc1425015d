"""tools/grade.py's parts: the stage lists, submissions, the build, the tests, the checks against
gaming, the performance runs and the reports."""
