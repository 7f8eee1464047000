"""holokb.shapes"""
