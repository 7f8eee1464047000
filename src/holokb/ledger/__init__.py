"""holokb.ledger"""
