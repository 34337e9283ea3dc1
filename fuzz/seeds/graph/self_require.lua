return require("graph")
