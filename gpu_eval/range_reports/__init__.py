"""Range reports: what each combo of a range holds on a board, and its exact equity."""
