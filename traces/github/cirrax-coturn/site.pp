include coturn
