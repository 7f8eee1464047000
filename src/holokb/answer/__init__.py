"""holokb.answer"""
