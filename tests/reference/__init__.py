"""Reference tests: sample programs run as plain Python, converted, and as traced graphs."""
