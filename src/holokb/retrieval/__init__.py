"""holokb.retrieval"""
