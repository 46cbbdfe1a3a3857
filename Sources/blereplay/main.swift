print("blereplay")
