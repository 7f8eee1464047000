"""holokb.server"""
