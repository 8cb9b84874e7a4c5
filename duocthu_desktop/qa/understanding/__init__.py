"""Reading a question into a QueryFrame: the words, names, patient facts and section it asks for (`question.understand`)."""
