include tuned
