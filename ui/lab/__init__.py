"""The lab computed once per setting, and the store of what every session shares."""
