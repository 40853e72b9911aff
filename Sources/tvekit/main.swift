print("tvekit")
