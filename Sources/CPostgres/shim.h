// libpq, PostgreSQL's client library (Debian libpq-dev). Only BLEWarehouse links it.
#include <postgresql/libpq-fe.h>
