"""holokb.ingest"""
