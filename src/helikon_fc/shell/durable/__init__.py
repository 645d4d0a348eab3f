"""What outlives a run: the store ports (sessions, run records), the run log a recorded run writes and
resumes from, and the compaction of a conversation (in a run, and in a stored session).
"""
