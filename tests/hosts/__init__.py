"""Tests across several app hosts behind HAProxy, each host in its own network namespace."""
