"""holokb.vsa"""
