import BLEReplay

/// CoreBluetoothReplay: CoreBluetooth's names and shapes on top of BLEReplay.
public enum CoreBluetoothReplayModule {}
