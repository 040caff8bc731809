(loop for i from 0)
