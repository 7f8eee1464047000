"""holokb.syntax"""
