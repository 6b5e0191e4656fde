#!/bin/sh
exec /usr/bin/ruby -r/srv/rec/mods/.fsmove-wrap/fix_apply_env.rb /usr/bin/puppet "$@"
