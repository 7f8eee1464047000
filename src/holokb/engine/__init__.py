"""holokb.engine"""
