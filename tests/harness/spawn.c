/* spawn.c — test tool: fork and exec CMD ARGS..., print the child's pid on stdout before it
 * runs (so a test can look for its events), wait for it, exit with its status.
 * usage: spawn CMD [ARGS...] */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: spawn CMD [ARGS...]\n");
		return 2;
	}
	int go[2];
	if (pipe(go))
		return 1;
	pid_t pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		char c;
		close(go[1]);
		if (read(go[0], &c, 1) < 0)   /* wait until the parent has told the pid */
			_exit(127);
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	close(go[0]);
	printf("%d\n", (int)pid);
	fflush(stdout);
	if (write(go[1], "x", 1) < 0)
		return 1;
	close(go[1]);
	int st;
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
