module mkeysim

go 1.26.8
