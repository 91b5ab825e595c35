// The `mce-worker` command as a module: importing it runs the command (the mce package's bin does). It exports nothing.
export {};
