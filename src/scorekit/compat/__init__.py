"""Drop-in modules: the names and signatures of other metric libraries, computed by scorekit."""
