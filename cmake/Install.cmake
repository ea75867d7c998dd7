# filled in by the install step
