#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
