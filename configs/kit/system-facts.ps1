# system-facts.ps1: the system table of a Windows server measured through
# the kit (docs/result-schema.md, "System table"), from WMI/CIM: the same
# field names and units as the image's agent and system-facts.sh, a field
# Windows does not tell left out.  Prints the "system" object as JSON; with
# -Facts PATH it writes PATH as the kit's facts file ({"kit", "os",
# "uname", "system"}) for the web server to serve as /benchboot-kit.json,
# where `benchboot ident` reads it (docs/own-server.md).
# Not run by benchboot's tests (no Windows there): docs/own-server.md.
param([string]$Facts = "")
$ErrorActionPreference = "SilentlyContinue"

function Put($o, $k, $v) {
	if ($null -ne $v -and "$v".Trim() -ne "") { $o[$k] = "$v".Trim() }
}
function PutNum($o, $k, $v) {
	if ($null -ne $v -and "$v" -match '^\d+$') { $o[$k] = [int64]$v }
}

$cs = Get-CimInstance Win32_ComputerSystem
$csp = Get-CimInstance Win32_ComputerSystemProduct
$bb = Get-CimInstance Win32_BaseBoard
$bios = Get-CimInstance Win32_BIOS
$cpus = @(Get-CimInstance Win32_Processor)
$os = Get-CimInstance Win32_OperatingSystem

$fw = [ordered]@{}
Put $fw sys_vendor $cs.Manufacturer
Put $fw product_name $cs.Model
Put $fw product_version $csp.Version
Put $fw board_vendor $bb.Manufacturer
Put $fw board_name $bb.Product
Put $fw board_version $bb.Version
Put $fw bios_vendor $bios.Manufacturer
Put $fw bios_version $bios.SMBIOSBIOSVersion
if ($bios.ReleaseDate) { Put $fw bios_date $bios.ReleaseDate.ToString("MM/dd/yyyy") }

$cpu = [ordered]@{}
if ($cpus.Count -gt 0) {
	$c = $cpus[0]
	Put $cpu model $c.Name
	Put $cpu vendor $c.Manufacturer
	# "Intel64 Family 6 Model 85 Stepping 4": CPUID's numbers.
	if ($c.Description -match 'Family (\d+) Model (\d+) Stepping (\d+)') {
		PutNum $cpu family $Matches[1]
		PutNum $cpu model_id $Matches[2]
		PutNum $cpu stepping $Matches[3]
	}
	$rev = (Get-ItemProperty 'HKLM:\HARDWARE\DESCRIPTION\System\CentralProcessor\0')."Update Revision"
	if ($rev -is [byte[]] -and $rev.Length -ge 8) {
		Put $cpu microcode ("0x{0:x}" -f [BitConverter]::ToUInt32($rev, 4))
	}
	PutNum $cpu sockets $cpus.Count
	PutNum $cpu cores ($cpus | Measure-Object NumberOfCores -Sum).Sum
	PutNum $cpu threads ($cpus | Measure-Object NumberOfLogicalProcessors -Sum).Sum
	PutNum $cpu max_mhz $c.MaxClockSpeed
	$cpu["smt"] = [bool](($cpus | Measure-Object NumberOfLogicalProcessors -Sum).Sum -gt ($cpus | Measure-Object NumberOfCores -Sum).Sum)
}

# SMBIOS memory types (DSP0134 7.18.2) as the agent names them.
$types = @{ 3 = "DRAM"; 7 = "RAM"; 15 = "SDRAM"; 18 = "DDR"; 19 = "DDR2";
	24 = "DDR3"; 26 = "DDR4"; 27 = "LPDDR"; 28 = "LPDDR2"; 29 = "LPDDR3";
	30 = "LPDDR4"; 34 = "DDR5"; 35 = "LPDDR5" }
$mem = [ordered]@{}
PutNum $mem total_kb $os.TotalVisibleMemorySize
$d = @()
foreach ($m in @(Get-CimInstance Win32_PhysicalMemory)) {
	$x = [ordered]@{}
	Put $x locator $m.DeviceLocator
	Put $x bank $m.BankLabel
	if ($m.Capacity) { $x["size_mb"] = [int64]($m.Capacity / 1MB) }
	if ($types.ContainsKey([int]$m.SMBIOSMemoryType)) { $x["type"] = $types[[int]$m.SMBIOSMemoryType] }
	if ($m.Speed -gt 0) { $x["speed_mts"] = [int64]$m.Speed }
	if ($m.ConfiguredClockSpeed -gt 0) { $x["configured_mts"] = [int64]$m.ConfiguredClockSpeed }
	$d += $x
}
if ($d.Count -gt 0) { $mem["dimms"] = $d }

$k = [ordered]@{}
Put $k release $os.Version
Put $k version ("build " + $os.BuildNumber)
try { $k["secure_boot"] = [bool](Confirm-SecureBootUEFI) } catch { }

$sys = [ordered]@{}
if ($fw.Count -gt 0) { $sys["firmware"] = $fw }
$sys["cpu"] = $cpu
$sys["memory"] = $mem
$sys["kernel"] = $k

if ($Facts -ne "") {
	$f = [ordered]@{ kit = 1; os = "windows";
		uname = "Windows " + $os.Version + " " + $env:PROCESSOR_ARCHITECTURE;
		system = $sys }
	$f | ConvertTo-Json -Depth 5 -Compress | Set-Content -Encoding ascii $Facts
} else {
	$sys | ConvertTo-Json -Depth 5 -Compress
}
