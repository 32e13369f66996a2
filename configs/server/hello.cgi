#!/bin/sh
# hello: the suite's "Hello, world" CGI (process creation per request);
# printf is a shell builtin, so a request costs one fork+exec of the shell.
# X-Benchboot-CGI names the kind (the server kit also has a Perl one, whose
# interpreter start-up is what Byte.com's 10x CGI gap measured).
printf 'Content-Type: text/plain\r\nX-Benchboot-CGI: sh\r\n\r\nHello, world\n'
