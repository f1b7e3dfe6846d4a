"""Tests of the Python capture harness."""
