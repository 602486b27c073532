# echo: a vendor-class test function that sends back whatever it receives.
PLUGINS += echo
echo_META := functions/echo/echo_meta.c
echo_CORE := functions/echo/echo.c
echo_SRCS := $(echo_META) $(echo_CORE)
echo_LIBS :=
