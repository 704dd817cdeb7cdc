# bash completion for toolprune (generated from the app: toolprune completions bash)
_toolprune() {
    local cur prev words i w path=""
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD-1]}"
    case "$prev" in
        --threshold) COMPREPLY=($(compgen -W "gentle standard strong max" -- "$cur")); return ;;
        --lang) COMPREPLY=($(compgen -W "auto en ja" -- "$cur")); return ;;
        --fit) COMPREPLY=($(compgen -W "claude codex gemini" -- "$cur")); return ;;
        --scorer) COMPREPLY=($(compgen -W "lexical semantic systemone" -- "$cur")); return ;;
        --provider) COMPREPLY=($(compgen -W "typesafe openrouter cloudflare local" -- "$cur")); return ;;
        --basis-file|--spill-dir|--log) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac
    # the command path typed so far: words that are neither options nor option values
    for ((i = 1; i < COMP_CWORD; i++)); do
        w="${COMP_WORDS[i]}"
        case "$w" in
            --base-url|--basis|--basis-file|--fit|--label|--lang|--log|--max-chars|--max-lines|--max-size|--model|--older-than|--path|--price|--provider|--scorer|--signal|--spill-dir|--tail|--threshold|--timeout|-b|-t) ((i++)); continue ;;
            -*) continue ;;
        esac
        if [[ -z "$path" ]]; then
            path="$w"
        elif [[ " config hook scorer spill " == *" $path "* ]]; then
            path="$path $w"
        else
            break
        fi
    done
    case "$path" in
        "") words="completions config doctor gc hook omitted run scorer spill stats --base-url --basis --basis-file --debug --envelope --explain --explain-json --fit --json-strict --label --lang --max-chars --max-lines --model --path --provider --scorer --signal --spill-dir --tail --threshold --timeout --verbose --version -b -t -v" ;;
        "config") words="get path set set-key show unset unset-key" ;;
        "hook") words="claude-code codex gemini install uninstall" ;;
        "scorer") words="test" ;;
        "spill") words="gc list path show" ;;
        "completions") words="" ;;
        "config get") words=" scorer provider base_url path model threshold lang timeout tail signal max_chars max_lines fit spill_dir log" ;;
        "config path") words="" ;;
        "config set") words=" scorer provider base_url path model threshold lang timeout tail signal max_chars max_lines fit spill_dir log" ;;
        "config set-key") words="" ;;
        "config show") words="--json" ;;
        "config unset") words=" scorer provider base_url path model threshold lang timeout tail signal max_chars max_lines fit spill_dir log" ;;
        "config unset-key") words="" ;;
        "doctor") words="" ;;
        "gc") words="--max-size --older-than --spill-dir" ;;
        "hook claude-code") words="" ;;
        "hook codex") words="" ;;
        "hook gemini") words="" ;;
        "hook install") words="--dry-run --project" ;;
        "hook uninstall") words="--dry-run --project" ;;
        "omitted") words="--spill-dir --verbose -v" ;;
        "run") words="" ;;
        "scorer test") words="--base-url --model --path --provider --timeout" ;;
        "spill gc") words="--max-size --older-than --spill-dir" ;;
        "spill list") words="--json --spill-dir" ;;
        "spill path") words="--spill-dir" ;;
        "spill show") words="--spill-dir" ;;
        "stats") words="--json --log --price" ;;
        *) words="" ;;
    esac
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _toolprune toolprune
