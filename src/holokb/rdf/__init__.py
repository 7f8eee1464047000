"""holokb.rdf"""
