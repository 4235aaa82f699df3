#!/usr/bin/env node
// Checked in so that pnpm can link the command before the first build;
// the program itself is compiled to dist/.
import "../dist/bin.js";
