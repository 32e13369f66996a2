#!/usr/bin/perl
# hello-perl: the suite's "Hello, world" CGI as a Perl script: every
# request starts the interpreter, the cost Byte.com's CGI gap came from
# (compare with the sh one, configs/server/hello.cgi).  X-Benchboot-CGI
# names the kind so a result can say which ran.
print "Content-Type: text/plain\r\nX-Benchboot-CGI: perl\r\n\r\nHello, world\n";
