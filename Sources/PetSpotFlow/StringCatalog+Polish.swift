import PetSpotViews

extension StringCatalog {
    public static let polish = StringCatalog(
        step: { step in
            switch step {
            case .chip:
                StepCopy(
                    title: "Numer mikrochipa",
                    heading: "Numer mikrochipa",
                    text: "Identyfikacja za pomocą mikrochipa to najskuteczniejszy sposób na odnalezienie zwierzęcia. "
                        + "Jeśli Twoje zwierzę ma wszczepiony mikrochip i znasz jego numer, wpisz go tutaj.")
            case .photo:
                StepCopy(
                    title: "Zdjęcie zwierzęcia",
                    heading: "Zdjęcie zwierzęcia",
                    text: "Wyraźne, aktualne zdjęcie pomoże innym rozpoznać Twoje zwierzę.")
            case .description:
                StepCopy(
                    title: "Opis zwierzęcia",
                    heading: "Opis zwierzęcia",
                    text: "Napisz, kiedy zwierzę zaginęło i jak je rozpoznać.")
            case .contact:
                StepCopy(
                    title: "Dane kontaktowe",
                    heading: "Dane kontaktowe",
                    text: "Jak osoba, która znajdzie Twoje zwierzę, może się z Tobą skontaktować? "
                        + "Podaj numer telefonu, adres e-mail lub oba.")
            case .summary:
                StepCopy(
                    title: "Podsumowanie",
                    heading: "Sprawdź zgłoszenie",
                    text: "Sprawdź poniższe dane. Aby coś zmienić, wróć do wcześniejszego kroku; "
                        + "jeśli wszystko się zgadza, wyślij zgłoszenie.")
            }
        },
        label: { field in
            switch field {
            case .chipNumber: "Numer mikrochipa"
            case .photo: "Zdjęcie zwierzęcia"
            case .disappearanceDate: "Data zaginięcia"
            case .species: "Gatunek zwierzęcia"
            case .race: "Rasa zwierzęcia"
            case .gender: "Płeć"
            case .age: "Wiek zwierzęcia"
            case .latitude: "Szerokość geograficzna"
            case .longitude: "Długość geograficzna"
            case .additionalDescription: "Dodatkowy opis zwierzęcia"
            case .contactPhone: "Numer telefonu"
            case .contactEmail: "Adres e-mail"
            }
        },
        optionalLabel: { "\($0) (opcjonalnie)" },
        placeholder: { field in
            switch field {
            case .chipNumber: "00000-00000-00000"
            case .photo: "Nie dodano zdjęcia"
            case .disappearanceDate: "RRRR-MM-DD"
            case .species, .gender: "Wybierz opcję"
            case .race: "np. labrador"
            case .age: "Liczba lat, 0–40"
            case .latitude: "np. 52.22977"
            case .longitude: "np. 21.01178"
            case .additionalDescription: "Umaszczenie, obroża, znaki szczególne…"
            case .contactPhone: "+48 123 456 789"
            case .contactEmail: "nazwa@example.com"
            }
        },
        notProvided: "Nie podano",
        toast: "Niektóre informacje wymagają poprawienia",
        gender: { gender in
            switch gender {
            case .female: "Samica"
            case .male: "Samiec"
            }
        },
        years: { count in
            // 1 rok; 2–4, 22–24, 32–34… lata, but 12–14 lat; everything else lat.
            if count == 1 { return "1 rok" }
            let paucal = (2...4).contains(count % 10) && !(12...14).contains(count % 100)
            return "\(count) \(paucal ? "lata" : "lat")"
        },
        date: { date in
            // Day-month dates take the month in the genitive: "1 maja 2024".
            let months = [
                "stycznia", "lutego", "marca", "kwietnia", "maja", "czerwca",
                "lipca", "sierpnia", "września", "października", "listopada", "grudnia",
            ]
            return "\(date.day) \(months[date.month - 1]) \(date.year)"
        },
        decimalSeparator: ",",
        photoSummary: { mediaType, size in "\(mediaType), \(size)" },
        chipHint: { hint in
            switch hint {
            case .countryCode(let code):
                "Pierwsze trzy cyfry, \(code), to numeryczny kod kraju według ISO 3166."
            case .manufacturerCode(let code):
                "Pierwsze trzy cyfry, \(code), to kod producenta."
            case .testTransponder:
                "Pierwsze trzy cyfry, 999, oznaczają transponder testowy, a nie chip zwierzęcia."
            case .unassignedCode:
                "Pierwsze trzy cyfry, 000, nie są przypisane do żadnego kraju ani producenta."
            case .nationalIDTooLarge:
                "Ostatnie 12 cyfr tworzy liczbę większą niż 274877906943 – największy numer krajowy, "
                    + "jaki może zapisać chip ISO 11784. Sprawdź numer."
            case .shorterThanISO:
                "Chipy ISO mają 15 cyfr; istnieją też starsze chipy z 9 lub 10 cyframi."
            }
        },
        photoFormats: { limit in "JPEG, PNG, WebP lub HEIC, do \(limit)." },
        photoDetails: { sha256, filename in
            filename.map { "\($0), SHA-256 \(sha256)" } ?? "SHA-256 \(sha256)"
        },
        noOtherLocationDetails: "Na tym etapie nie zbieramy innych informacji o miejscu zaginięcia.",
        locationFound: { source in "Pobrano i wpisano pozycję GPS (źródło: \(source))." },
        locationTimedOut:
            "Nie udało się ustalić pozycji GPS na czas. Spróbuj ponownie, wpisz współrzędne ręcznie lub zostaw je puste.",
        locationUnavailable:
            "Pozycja GPS jest teraz niedostępna. Spróbuj ponownie później, wpisz współrzędne ręcznie lub zostaw je puste.",
        issue: { issue in
            switch issue {
            case .required(.disappearanceDate): "Podaj datę zaginięcia."
            case .required(.species): "Wybierz gatunek."
            case .required(.race): "Podaj rasę."
            case .required(.gender): "Wybierz płeć."
            case .required: "To pole jest wymagane."
            case .notADate: "Podaj datę w formacie RRRR-MM-DD, np. 2024-05-31."
            case .futureDate: "Data nie może być z przyszłości."
            case .unknownSpecies: "Wybierz gatunek z listy."
            case .speciesFirst: "Najpierw wybierz gatunek."
            case .tooLong(let maximum): "Wpisz najwyżej \(maximum) znaków."
            case .controlCharacters(allowsLineBreaks: false): "Usuń znaki sterujące (np. kody escape); wpisz zwykły tekst."
            case .controlCharacters(allowsLineBreaks: true):
                "Usuń znaki sterujące (np. kody escape); nowe wiersze i tabulatory są dozwolone."
            case .unknownGender: "Wybierz samicę lub samca."
            case .invalidAge: "Podaj wiek w pełnych latach, od 0 do 40."
            case .notANumber: "Podaj liczbę, np. 52.22977."
            case .outOfRange(.latitude): "Szerokość geograficzna musi mieścić się w przedziale od −90 do 90."
            case .outOfRange(.longitude): "Długość geograficzna musi mieścić się w przedziale od −180 do 180."
            case .missingCoordinate(.latitude): "Podaj też szerokość geograficzną albo usuń długość."
            case .missingCoordinate(.longitude): "Podaj też długość geograficzną albo usuń szerokość."
            case .photo(.notBase64): "Dane zdjęcia nie są poprawnym kodem base64."
            case .photo(.notAnImage): "Wybierz obraz w formacie JPEG, PNG, WebP lub HEIC."
            case .photo(.tooLarge(let limit)):
                "Zdjęcie jest większe niż \(ByteSize.text(limit, decimalSeparator: ",")). Wybierz mniejsze."
            case .phone(.invalidCharacter): "Użyj tylko cyfr, spacji, myślników, kropek, nawiasów i znaku + na początku."
            case .phone(.digitCount): "Numer telefonu ma od 7 do 15 cyfr."
            case .email(.malformed): "Podaj adres e-mail w postaci nazwa@example.com."
            case .email(.tooLong): "Adres e-mail może mieć najwyżej 254 znaki."
            case .noContact: "Podaj numer telefonu lub adres e-mail."
            }
        },
        locationMessage: { outcome in
            switch outcome {
            case .fix: "Ustalono pozycję."
            case .permissionDenied: "Nie masz uprawnień do korzystania z lokalizacji."
            case .servicesDisabled: "Usługi lokalizacji są wyłączone."
            case .timeout: "Nie udało się ustalić pozycji na czas."
            case .unavailable: "Żadne źródło lokalizacji nie jest dostępne."
            }
        },
        permissionDeniedAlert: AlertCopy(
            title: "Brak dostępu do lokalizacji",
            message: "Twoje konto nie ma dostępu do lokalizacji; dostęp przyznaje się w ustawieniach. "
                + "Możesz też wpisać współrzędne ręcznie lub zostawić je puste."),
        servicesDisabledAlert: AlertCopy(
            title: "Usługi lokalizacji są wyłączone",
            message: "Włącz usługi lokalizacji w ustawieniach, aby użyć pozycji GPS. "
                + "Możesz też wpisać współrzędne ręcznie lub zostawić je puste."),
        cancel: "Anuluj",
        goToSettings: "Przejdź do ustawień"
    )
}
