#!/bin/sh
# hello: the suite's "Hello, world" CGI (process creation per request);
# printf is a shell builtin, so a request costs one fork+exec of the shell.
printf 'Content-Type: text/plain\r\n\r\nHello, world\n'
