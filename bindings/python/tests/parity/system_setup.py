"""Driver and device discovery (upstream's system_setup_test scenarios)."""
import iree.runtime as rt
ss = rt.system_setup

names = ss.query_available_drivers()
print("local-sync" in names, "local-task" in names)
for name in ["local-sync", "local-task"]:
    driver = ss.get_driver(name)
    infos = driver.query_available_devices()
    print(name, type(driver).__name__, infos if name == "local-sync" else len(infos) >= 1)
driver = ss.get_driver("local-sync")
try:
    driver.create_device(5555)
except ValueError:
    print("bad device id: ValueError")
infos = driver.query_available_devices()
print(repr(driver.create_device(infos[0]["device_id"])), repr(driver.create_device(infos[0])))
print(repr(driver.create_default_device()), repr(driver.create_device_by_uri("local-sync://")))
d1 = ss.get_device("local-task")
d2 = ss.get_device("local-sync")
d3 = ss.get_device("local-sync")
d4 = ss.get_device("local-sync", cache=False)
print(d1 is not d2, d3 is not d4, d2 is d3)
try:
    ss.get_device("local-sync://1")
except ValueError:
    print("no such device: ValueError")
print(repr(ss.get_first_device(["nothere", "local-sync"])))
