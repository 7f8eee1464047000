"""holokb.solver"""
