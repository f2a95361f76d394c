// check-node.js has no exports: importing it checks the running Node.js.
export {};
