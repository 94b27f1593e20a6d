"""Configs, planning a config into fit tasks, executors, the driver, the timing protocol."""
