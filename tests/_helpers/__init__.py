"""Set-ups that several test modules share (data, pinned estimators, MPI runs).

Only test modules import these; nothing here is a test.
"""
