// The `mce-cli` command as a module: importing it runs the command. It exports nothing.
export {};
