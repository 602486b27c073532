# echo: a vendor-class test function that sends back whatever it receives.
PLUGINS += echo
echo_META := functions/echo/echo_meta.c
echo_SRCS := $(echo_META) functions/echo/echo.c
echo_LIBS :=
