# echo: a vendor-class test function that sends back whatever it receives.
PLUGINS += echo
echo_SRCS := functions/echo/echo.c
echo_LIBS :=
