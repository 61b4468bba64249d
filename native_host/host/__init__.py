"""The native-messaging host (`fantasma-host`): stdio frames in, jobs, frames out. See PROTOCOL.md."""
